"""Reference answers to the exercises. Try the exercise first; read these after."""
