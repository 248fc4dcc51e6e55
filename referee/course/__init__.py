"""The course workflow around the games: a student's pre-flight check of a bot (`referee check`),
and the instructor's `referee course` (collect, check, feedback, grades; see docs/course.md)."""
