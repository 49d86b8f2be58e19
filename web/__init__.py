"""The reviewers' web app (`clausemill serve`): FastAPI glue over plain functions.

app.py builds the app, auth.py is the one gate every request passes, routes/ holds the pages
and the JSON API, users.py and queue_listing.py the domain functions they call.
"""
