"""``python -m privcheck`` runs the command-line interface (same as the ``privcheck`` script)."""

from privcheck.cli import main

if __name__ == "__main__":
    main()
