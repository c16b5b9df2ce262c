import os
import signal

# Until the command line installs its own handler (after the imports, which take seconds on
# a busy Pi), SIGTERM ends the process as Ctrl-C would: nothing is open yet to flush.
signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(130))

from edge_assist.cli import main  # noqa: E402

raise SystemExit(main())
