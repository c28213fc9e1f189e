"""``python -m privcheck.cli``: the ``privcheck`` command (the tests run it so)."""

from privcheck.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
