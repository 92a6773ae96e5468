"""From camera frames to detections to stable table rows."""
