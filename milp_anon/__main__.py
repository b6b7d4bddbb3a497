from milp_anon.cli import run

run()
