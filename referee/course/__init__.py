"""The course workflow around the games: a student's pre-flight check of a bot (`referee check`)."""
