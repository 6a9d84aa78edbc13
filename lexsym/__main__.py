from lexsym.cli import main

main()
