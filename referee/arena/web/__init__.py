"""The arena's web pages: a starlette app (`app.py`) whose every route is declared with the
guards of `guards.py` (who may see it; the CSRF and Origin checks of forms), rendering the
jinja2 templates of `referee/arena/templates/` with every value escaped (`site.py`).
"""
