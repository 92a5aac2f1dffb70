package dev.mailqueue.it;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The test server's users (src/test/liberty/configDropins/overrides/integration-tests.xml) and their
 * HTTP Basic credentials (RFC 7617).
 *
 * @param name     the user name
 * @param password its password
 */
record TestUser(String name, String password) {

    /** Group mail-admins: role mail-admin. */
    static final TestUser ADMIN = new TestUser("admin", "it-admin-pw");
    /** Group mail-senders: role mail-sender; may send as @sender.example and @shop.example. */
    static final TestUser SENDER = new TestUser("sender", "it-sender-pw");
    /** Group mail-senders too, but may send only as only@other.example. */
    static final TestUser OTHER_SENDER = new TestUser("other-sender", "it-other-pw");
    /** Group mail-viewers: role mail-viewer, reads the operator's API and console, changes nothing. */
    static final TestUser VIEWER = new TestUser("viewer", "it-viewer-pw");
    /** Authenticated, but in no group: no role. */
    static final TestUser NOBODY = new TestUser("nobody", "it-nobody-pw");

    /** @return the same user with another password, e.g. a wrong one */
    TestUser withPassword(String other) {
        return new TestUser(name, other);
    }

    /** @return the value of an Authorization header for this user */
    String basic() {
        return "Basic " + Base64.getEncoder().encodeToString((name + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
