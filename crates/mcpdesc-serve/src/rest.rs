//! The REST gateway: request building, auth, the upstream client, response mapping.
