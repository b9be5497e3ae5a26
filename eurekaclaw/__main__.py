from eurekaclaw.cli import app

app()
