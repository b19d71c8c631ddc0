"""Formation: from trusted user turns to candidate beliefs, and through the resolver."""
