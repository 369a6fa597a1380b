from rankmeter.cli import main

main()
