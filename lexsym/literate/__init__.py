"""The literate statute view (`lexsym doc`): statute files rendered as static HTML, the law beside its rules,
with dated amounts, departures, reading choices and the statute tests' status, in the manner of Catala's
literate output."""
