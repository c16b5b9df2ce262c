from edge_assist.cli import main

raise SystemExit(main())
