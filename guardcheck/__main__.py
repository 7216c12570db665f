from guardcheck.commands.main import main

main()
