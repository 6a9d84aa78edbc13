"""Checking claimed exemption schedules against the law: the checker and `lexsym check`."""
