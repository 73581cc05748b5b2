"""Stream stages: functions from an event iterator to an event iterator."""
