package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import jakarta.persistence.EntityManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.List;
import java.util.logging.Logger;

/**
 * Takes back rows whose lease expired, in the claim's transaction. A row whose claimer never began
 * sending goes back to QUEUED as it was. A row whose claimer had begun the SMTP transaction
 * ({@link SendStartMarker}) is in doubt: the attempt log gets an {@link AttemptOutcome#IN_DOUBT}
 * attempt, and the {@link InDoubtPolicy} decides between QUEUED (resend, same Message-ID; HELD when no
 * attempt remains) and HELD. Each take-back is conditional on the row still being leased to the same
 * claimer and expired, so two claimers that find the same row cannot both take it.
 */
final class LeaseRecovery {

    private static final Logger LOG = Logger.getLogger(LeaseRecovery.class.getName());

    /** {@code ?}s: status, remaining, error, id, owner, now. */
    static final String TAKE_BACK = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, LAST_ERROR = ?,"
            + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ? AND LEASE_EXPIRES_AT < ?";

    /** What last_error says of a row that came back because its lease expired before sending began. */
    static final String EXPIRED_NOTE = "lease expired before sending began; queued again";

    private LeaseRecovery() {
    }

    /**
     * @param em         the claim transaction's entity manager (for the attempt rows)
     * @param connection the same transaction's connection
     * @param expired    leases found expired
     * @param policy     what to do with an in-doubt row
     * @param now        UTC now
     * @return how many rows were taken back
     * @throws SQLException when the database refuses
     */
    static int recover(EntityManager em, Connection connection, List<ExpiredLease> expired, InDoubtPolicy policy,
                       LocalDateTime now) throws SQLException {
        if (expired.isEmpty()) {
            return 0;
        }
        int[] counts;
        try (PreparedStatement update = connection.prepareStatement(TAKE_BACK)) {
            for (ExpiredLease lease : expired) {
                MailStatus next = next(lease, policy);
                int left = lease.inDoubt() ? Math.max(0, lease.attemptsRemaining() - 1) : lease.attemptsRemaining();
                update.setString(1, next.name());
                update.setInt(2, left);
                update.setString(3, lease.inDoubt() ? inDoubtNote(lease, next) : EXPIRED_NOTE);
                update.setLong(4, lease.mailId());
                update.setString(5, lease.owner());
                update.setTimestamp(6, Timestamp.valueOf(now));
                update.addBatch();
            }
            counts = update.executeBatch();
        }
        int taken = 0;
        for (int i = 0; i < expired.size(); i++) {
            if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
                continue; // another claimer took it back first
            }
            taken++;
            ExpiredLease lease = expired.get(i);
            if (lease.inDoubt()) {
                MailStatus next = next(lease, policy);
                LOG.warning(() -> "Mail " + lease.mailId() + ": " + inDoubtNote(lease, next));
                em.persist(new MailAttempt(lease.mailId(), lease.sendStartedAt(), now, serverOf(lease.owner()),
                        lease.owner(), AttemptOutcome.IN_DOUBT, null, null, inDoubtNote(lease, next), null));
            }
        }
        return taken;
    }

    private static MailStatus next(ExpiredLease lease, InDoubtPolicy policy) {
        if (!lease.inDoubt()) {
            return MailStatus.QUEUED;
        }
        return policy == InDoubtPolicy.RESEND && lease.attemptsRemaining() > 1 ? MailStatus.QUEUED : MailStatus.HELD;
    }

    private static String inDoubtNote(ExpiredLease lease, MailStatus next) {
        return "in doubt: the lease of " + lease.owner() + " expired after sending began at "
                + lease.sendStartedAt() + "Z; " + (next == MailStatus.QUEUED
                ? "sending again with the same Message-ID" : "held for review");
    }

    /** @return the server part of a lease owner {@code host/server#execution} */
    static String serverOf(String owner) {
        int hash = owner.lastIndexOf('#');
        return hash > 0 ? owner.substring(0, hash) : owner;
    }
}
