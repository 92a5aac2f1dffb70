package dev.mailqueue.queue.control;

/**
 * A claimer's lease: the MAIL_CLAIMER row that holds the mails it claimed while the claimer lives. Renewed
 * every third of the lease time ({@link ClaimStore#renew}), and by a claim when that renewal is late; each claim
 * reads that it is still there. When it runs out, the claimer's mails come back to the queue
 * ({@link ClaimStore#recover}). One write per claimer and renewal, none per mail.
 *
 * @param claimer the row's id, which MAIL_QUEUE.CLAIMER names
 * @param owner   the claimer's name in the log, e.g. {@code host/server#42}, at most 200 characters
 */
public record Lease(long claimer, String owner) {

    /** @return the server part of the owner {@code host/server#execution}, as the log names a server */
    public String server() {
        int hash = owner.lastIndexOf('#');
        return hash > 0 ? owner.substring(0, hash) : owner;
    }
}
