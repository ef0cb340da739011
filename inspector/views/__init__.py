"""Read-only views of a table computed from its log: history, versions, time travel,
overview, file and metadata diffs, retention, the file-presence check and health.

``filecheck`` is the one "present with the right size" rule (health, restore, reader);
``rowrecords`` holds a row diff's records apart from its Spark computation. May import
``inspector.delta``, ``inspector.log`` and ``inspector.settings``. Never imports
pyspark: every view here answers without starting the JVM.
"""
