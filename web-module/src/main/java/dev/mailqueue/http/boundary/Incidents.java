package dev.mailqueue.http.boundary;

import java.util.UUID;

/** Incident ids: a random UUID that an answer names and the server log holds beside the failure. */
final class Incidents {

    private Incidents() {
    }

    /** @return a new incident id, 36 characters */
    static String next() {
        return UUID.randomUUID().toString();
    }
}
