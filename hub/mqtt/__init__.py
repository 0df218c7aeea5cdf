"""The venue link over MQTT: the wire (topics, payload checks), an asyncio client on paho-mqtt,
the hub's persistent outbox, the embedded demo broker and the production mosquitto setup.

``wire`` has no I/O and is what both ends check every message with; see ``docs/protocol.md``
§ "Venue link (MQTT)".
"""
