from guardcheck.cli import main

main()
