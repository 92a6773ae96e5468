import sys

from hanadealer.cli import main

sys.exit(main())
