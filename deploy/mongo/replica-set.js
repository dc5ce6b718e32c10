// Health check AND initialisation of the single-node replica set used by
// docker-compose (mounted into the mongo container and run by mongosh).
// The first run initiates rs0; every run exits non-zero until this node is
// PRIMARY, so services that depend on `mongo: service_healthy` start only
// once writes are accepted (change streams / retryable writes need a replica set).
try {
  rs.status();
} catch (e) {
  if (e.codeName !== 'NotYetInitialized') throw e;
  rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] });
}
if (!db.hello().isWritablePrimary) quit(1);
