# public_api.py is read by mypy only (tests/typing/test_public_types.py); pytest never imports it
collect_ignore = ["public_api.py"]
