package dev.mailqueue.unsubscribe.boundary;

import dev.mailqueue.log.control.LogText;
import dev.mailqueue.queue.control.SuppressionStore;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import dev.mailqueue.unsubscribe.control.UnsubscribeToken;
import jakarta.annotation.security.PermitAll;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Unsubscribes a recipient from a list by the token of a one-click link (RFC 8058). Open to every caller,
 * also one without a login: a mailbox provider sends the POST on the recipient's behalf with no
 * credentials (RFC 8058 §3.2), so the token's signature is the only authority. An address is suppressed
 * for that list only ({@code SUPPRESSION.SCOPE} = the list, reason {@code UNSUBSCRIBE}); mail of other
 * lists, and mail of no list, still reach it.
 */
@Stateless
@PermitAll
public class Unsubscriptions {

    private static final Logger LOG = Logger.getLogger(Unsubscriptions.class.getName());

    @Inject
    UnsubscribeLinks links;

    @Inject
    SuppressionStore suppressions;

    /**
     * @param token the last path segment of a link, as received; may be anything
     * @return the list and address the link names, without changing anything; empty when the token is
     *         not one of this installation's (malformed, forged, or one-click unsubscribe is off)
     */
    public Optional<UnsubscribeToken> check(String token) {
        return links.verify(token);
    }

    /**
     * Suppresses the link's address for its list. Repeating it changes nothing: the first entry stays, with
     * its time, and the answer is the same.
     *
     * @param token the last path segment of a link, as received; may be anything
     * @return the list and address now suppressed; empty when the token is not one of this installation's,
     *         and then nothing changed
     * @throws dev.mailqueue.queue.control.StoreException when the database fails (nothing changed)
     */
    public Optional<UnsubscribeToken> unsubscribe(String token) {
        Optional<UnsubscribeToken> link = links.verify(token);
        link.ifPresent(l -> {
            if (suppressions.add(l.address(), l.list(), SuppressionStore.Reason.UNSUBSCRIBE,
                    "one-click unsubscribe (RFC 8058)", Instant.now())) {
                LOG.info(() -> LogText.escape(l.address()) + " unsubscribed from list " + l.list());
            }
        });
        return link;
    }
}
