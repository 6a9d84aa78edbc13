"""The sample viewer: every sample of one or more runs in one page, to filter, sort, open and compare.

`viewer_data(run_dirs)` gathers the list and each sample's detail (`details`), `render_page` and
`write_page` make the self-contained HTML page (`page`), and `ViewerServer` serves it on 127.0.0.1
(`server`).
"""

from lexsym.viewer.details import viewer_data
from lexsym.viewer.page import content_security_policy, page_parts, render_page, write_page
from lexsym.viewer.server import ViewerServer

__all__ = [
    "ViewerServer",
    "content_security_policy",
    "page_parts",
    "render_page",
    "viewer_data",
    "write_page",
]
