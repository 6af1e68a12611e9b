"""`akb playground`: a web page on 127.0.0.1 to try a tenant's endpoint (docs/playground.md).

The server (web_server.py, web_routes.py) talks to the endpoint through the same `Client` as `akb ask`
and relays its events to the page as they arrive (event_bridge.py); the page itself is plain
HTML/CSS/JS shipped as package data (static/), with nothing fetched from the internet. The guard
(origin_guard.py) keeps other sites and other hosts out.
"""
