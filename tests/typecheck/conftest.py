# public_api.py is read by mypy only (tests/typecheck/test_public_types.py); pytest never imports it
collect_ignore = ["public_api.py"]
