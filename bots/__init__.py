"""Built-in bots: separate programs that speak the bot protocol (`python -m bots NAME ...`)."""
