"""The venue service's core: seeded duplicate deals, MP scoring and standings, Swiss
movement, a match game's match scoring, and the SQLite store.  No network here: the MQTT
service that feeds it lives beside it and calls into these modules.
"""
