from sessionport.cli import main

main()
