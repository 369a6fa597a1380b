from rankmeter.cli import console_main

console_main()
