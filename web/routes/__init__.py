"""The app's routes, one module per part of it; web/app.py includes each module's `router`."""
