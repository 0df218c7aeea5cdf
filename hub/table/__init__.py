"""The table hub: seat links over serial, authoritative clocks, the hash-chained event
log, and the asyncio runtime that drives one table's rules engine (``paizhuo hub``); in
venue mode, the uplink to the venue service over MQTT (:mod:`paizhuo.table.uplink`).
"""
