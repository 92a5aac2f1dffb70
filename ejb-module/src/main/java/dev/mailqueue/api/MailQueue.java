package dev.mailqueue.api;

import java.util.List;

/**
 * The mail queue's use cases, shared by the local view and the remote view
 * ({@link MailQueueRemote}). An application hands a mail over and returns at once; the queue sends it
 * later, retrying failed attempts, at the rate the SMTP server allows.
 *
 * <p>Callers need the role {@code mail-sender} or {@code mail-admin}; without it every method throws
 * {@code jakarta.ejb.EJBAccessException}. A sender sees and cancels only the mails it enqueued (others
 * are "not found" to it); an administrator sees all.
 *
 * <p>Business errors are checked {@link MailQueueException}s, so that callers of the remote view in
 * other applications receive and can catch them as their own classes.
 */
public interface MailQueue {

    /**
     * Queues one mail. Joins the caller's JTA transaction: if the caller rolls back, nothing is queued
     * (transactional outbox); without a caller transaction the mail is committed on return.
     *
     * @param request the mail; see {@link MailRequest} for the rules
     * @return the id and the Message-ID the mail will carry on every attempt
     * @throws InvalidMailException       when the request breaks a rule; names each field at fault
     * @throws SenderNotAllowedException when the caller may not send from the request's From address
     *                                   (its allow-list, {@code mailqueue.security.allowed-from.<user>})
     */
    EnqueueReceipt enqueue(MailRequest request) throws InvalidMailException, SenderNotAllowedException;

    /**
     * Queues one mail at most once per idempotency key and caller, like {@link #enqueue(MailRequest)}:
     * when the caller already queued a mail with this key and the same request, nothing new is queued and its
     * receipt is returned, marked {@link EnqueueReceipt#isDuplicate() duplicate}. For callers that
     * may send the same request twice, e.g. a user double-clicking "Send" or a retry after a timeout.
     * Keys are kept as long as their mail (retention deletes both).
     *
     * @param request        the mail; see {@link MailRequest} for the rules
     * @param idempotencyKey the caller's key for this mail: 1 to 255 printable ASCII characters (e.g. a
     *                       UUID), or null for no key
     * @return the new mail's receipt, or the earlier one's
     * @throws InvalidMailException         when the request breaks a rule or the key is malformed
     *                                      (field {@code idempotencyKey})
     * @throws SenderNotAllowedException    when the caller may not send from the request's From address
     * @throws IdempotencyConflictException when a concurrent enqueue with the same key committed first;
     *                                      the transaction rolls back, and calling again returns its mail
     * @throws IdempotencyKeyReusedException when the key first queued a different request; nothing is
     *                                       queued
     */
    EnqueueReceipt enqueue(MailRequest request, String idempotencyKey) throws InvalidMailException,
            SenderNotAllowedException, IdempotencyConflictException, IdempotencyKeyReusedException;

    /**
     * Queues a finished RFC 5322 message as it is (raw MIME), in the caller's transaction like
     * {@link #enqueue(MailRequest)}, at most once per idempotency key as {@link #enqueue(MailRequest, String)}.
     * The same rules apply as to a composed mail: the caller may send as the envelope sender and as every
     * address of the message's {@code From} and {@code Sender} fields, the recipients pass the suppression
     * list, the options their limits. What the queue changes in the message is said on {@link RawMail}.
     *
     * @param mail           the message, its envelope and options
     * @param idempotencyKey the caller's key for this mail (1 to 255 printable ASCII characters), or null
     * @return the new mail's receipt (its Message-ID: the message's own, or the one the queue added), or the
     *         earlier one's for a repeated key
     * @throws InvalidMailException          when the message is not an RFC 5322 message the queue can send, or an
     *                                       option breaks a rule: names the field ({@code message}, a header field
     *                                       such as {@code Message-ID}, {@code envelopeTo[0]}, {@code priority}) and
     *                                       why; also when its Message-ID is already a queued mail's
     * @throws SenderNotAllowedException     when the caller may not send as the envelope sender ({@code from}) or an
     *                                       address of the From or Sender field
     * @throws IdempotencyConflictException  when a concurrent enqueue with the same key committed first
     * @throws IdempotencyKeyReusedException when the key first queued a different message or options
     */
    EnqueueReceipt enqueueRaw(RawMail mail, String idempotencyKey) throws InvalidMailException,
            SenderNotAllowedException, IdempotencyConflictException, IdempotencyKeyReusedException;

    /**
     * Queues up to {@link MailLimits#BATCH} mails at once, all or nothing, in the caller's transaction
     * like {@link #enqueue(MailRequest)}.
     *
     * @param requests 1 to 10,000 mails
     * @return one receipt per mail, in the order given
     * @throws InvalidMailException when the list is empty or too long, or any mail breaks a rule; each
     *                              field is named with the mail's index, e.g. {@code [3].to[0]}, and
     *                              no mail is queued
     * @throws SenderNotAllowedException when the caller may not send from a mail's From address; each
     *                                   is named as {@code [index].from}, and no mail is queued
     */
    List<EnqueueReceipt> enqueueAll(List<MailRequest> requests) throws InvalidMailException, SenderNotAllowedException;

    /**
     * @param id the id from {@link EnqueueReceipt#getId()}
     * @return the mail's status, attempt log and envelope
     * @throws MailNotFoundException when no mail has this id that the caller may see
     */
    MailView find(long id) throws MailNotFoundException;

    /**
     * Withdraws a mail that has not been claimed yet; it becomes {@link MailStatus#CANCELLED}.
     *
     * @param id the mail
     * @return the mail after the change
     * @throws MailNotFoundException when no mail has this id
     * @throws MailStateException    when the mail is not {@link MailStatus#QUEUED} (being sent or done)
     */
    MailView cancel(long id) throws MailNotFoundException, MailStateException;
}
