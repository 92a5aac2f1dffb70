package dev.mailqueue.api;

import java.util.List;

/**
 * What an operator does with the queue: find mails, put failed ones back, withdraw or delete them,
 * read an attempt log and the queue's numbers. Callers need the role {@code mail-admin}; anyone else
 * gets an {@code EJBAccessException} (REST: 403). Shared by the local and the remote view
 * ({@link MailAdminRemote}).
 *
 * <p>Requeue puts a mail back as if new: QUEUED, due now, the configured number of attempts, no
 * lease. It applies to FAILED, EXPIRED, HELD and CANCELLED mails. Cancel applies to QUEUED and HELD
 * mails. Delete removes a mail and its attempt log in any status but SENDING. No action ever touches a
 * SENDING mail: its claimer holds the lease.
 */
public interface MailAdmin {

    /** Most mails one search page returns. */
    int MAX_PAGE_SIZE = 500;

    /**
     * @param filter which mails; an empty filter matches all
     * @param page   page number, from 0
     * @param size   page size, 1 to {@link #MAX_PAGE_SIZE}
     * @param sort   {@code field} or {@code field,asc|desc}; fields: id, createdAt, status, priority,
     *               notBefore, sentAt, lastAttemptAt, finishedAt; null means {@code id,desc} (newest first).
     *               Statuses out of the queue and no other criterion, sorted by finishedAt, are read in that order
     *               from the log's status index, at a cost that does not grow with the history
     * @return the page, mails without their attempt logs
     * @throws InvalidFilterException when page, size or sort is out of range, naming the field
     */
    MailPage search(MailFilter filter, int page, int size, String sort) throws InvalidFilterException;

    /**
     * Requeues the FAILED, EXPIRED, HELD and CANCELLED mails among those the filter matches, except those whose
     * content the retention job removed.
     *
     * @param filter which mails; at least one criterion (an empty filter is refused)
     * @return how many mails were requeued
     * @throws InvalidFilterException when the filter is empty
     */
    int requeue(MailFilter filter) throws InvalidFilterException;

    /**
     * Cancels the QUEUED and HELD mails among those the filter matches.
     *
     * @param filter which mails; at least one criterion
     * @return how many mails were cancelled
     * @throws InvalidFilterException when the filter is empty
     */
    int cancel(MailFilter filter) throws InvalidFilterException;

    /**
     * Deletes the mails the filter matches, with their attempt logs, except SENDING ones.
     *
     * @param filter which mails; at least one criterion
     * @return how many mails were deleted
     * @throws InvalidFilterException when the filter is empty
     */
    int delete(MailFilter filter) throws InvalidFilterException;

    /**
     * Requeues one mail (see the class comment).
     *
     * @param id the mail
     * @return the mail after the change
     * @throws MailNotFoundException when no mail has this id
     * @throws MailStateException    when the mail is not FAILED, EXPIRED, HELD or CANCELLED, or the retention job
     *                               removed its content ({@link MailView#getContentRemovedAt()}): it would go out
     *                               empty
     */
    MailView requeue(long id) throws MailNotFoundException, MailStateException;

    /**
     * Cancels one QUEUED or HELD mail.
     *
     * @param id the mail
     * @return the mail after the change
     * @throws MailNotFoundException when no mail has this id
     * @throws MailStateException    when the mail is not QUEUED or HELD
     */
    MailView cancel(long id) throws MailNotFoundException, MailStateException;

    /**
     * Deletes one mail and its attempt log.
     *
     * @param id the mail
     * @throws MailNotFoundException when no mail has this id
     * @throws MailStateException    when the mail is SENDING
     */
    void delete(long id) throws MailNotFoundException, MailStateException;

    /**
     * @param id the mail
     * @return its attempt log, oldest first
     * @throws MailNotFoundException when no mail has this id
     */
    List<AttemptView> attempts(long id) throws MailNotFoundException;

    /** @return the queue's numbers now */
    QueueStatistics statistics();

    /**
     * @param addressContains part of the address (case-insensitive), or null for all
     * @param page            0 or more
     * @param size            1 to {@value #MAX_PAGE_SIZE}
     * @return one page of the suppression list, newest first
     * @throws InvalidFilterException naming {@code page} or {@code size} when out of range
     */
    List<SuppressionView> suppressions(String addressContains, int page, int size) throws InvalidFilterException;

    /**
     * Asks "may I send to this address?".
     *
     * @param address a bare address
     * @param list    the list the mail belongs to, or null
     * @return the entry that forbids sending to it (for all mail, else for the list), or null: sending is allowed
     * @throws InvalidFilterException naming {@code address} when it is not a bare address
     */
    SuppressionView suppression(String address, String list) throws InvalidFilterException;

    /**
     * Puts an address on the suppression list by hand (reason MANUAL); an existing entry is kept as it is.
     *
     * @param address a bare address, e.g. {@code pat@example.com}
     * @param list    a list name (1 to 64 characters of {@code A-Z a-z 0-9 . _ -}), or null for all mail
     * @param note    why, up to 1,000 characters, or null
     * @return the entry
     * @throws InvalidFilterException naming {@code address}, {@code list} or {@code note} when invalid
     */
    SuppressionView suppress(String address, String list, String note) throws InvalidFilterException;

    /**
     * Lifts a suppression: the queue sends to the address again.
     *
     * @param address the address
     * @param list    the list, or null for the entry that covers all mail
     * @return true when there was such an entry
     * @throws InvalidFilterException naming {@code address} or {@code list} when invalid
     */
    boolean unsuppress(String address, String list) throws InvalidFilterException;
}
