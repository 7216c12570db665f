from guardcheck.commands.main import cli

cli()
