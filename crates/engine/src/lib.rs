//! StreamLab's stream engine: a faithful model of Redis Streams and consumer groups.
