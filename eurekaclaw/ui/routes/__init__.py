"""The web app's route groups, one module each; app.create_app puts them behind the guard."""
