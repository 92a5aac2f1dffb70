package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.DkimKeyView;
import dev.mailqueue.api.SeriesBucket;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailAdmin;
import dev.mailqueue.api.MailDetail;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.EventRecord;
import jakarta.ejb.Local;

import java.util.List;
import java.util.Optional;

/**
 * The local view of the operator's use cases, for the admin REST API in the same application: those of
 * {@link MailAdmin}, and what only the console reads (one mail with its bodies, an attachment's bytes, a
 * mail's events, chart data).
 */
@Local
public interface MailAdminLocal extends MailAdmin {

    /**
     * @param id a mail
     * @return it as the console shows it, bodies included
     * @throws MailNotFoundException when there is no such mail
     */
    MailDetail detail(long id) throws MailNotFoundException;

    /**
     * @param id    a mail
     * @param index an attachment's position among the mail's attachments, from 0
     * @return the attachment with its bytes, or empty when the mail has no attachment there
     * @throws MailNotFoundException when there is no such mail
     */
    Optional<AttachmentFile> attachment(long id, int index) throws MailNotFoundException;

    /**
     * @param id a mail
     * @return its delivery events, oldest first
     * @throws MailNotFoundException when there is no such mail
     */
    List<EventRecord> events(long id) throws MailNotFoundException;

    /** @return the DKIM signing keys this server is configured with, ordered by domain; empty when none */
    List<DkimKeyView> dkimKeys();

    /**
     * @param range   {@code hour} (60 one-minute buckets) or {@code week} (168 one-hour buckets); null for hour
     * @param account an SMTP account, or null for all mail
     * @return the chart data: per bucket, oldest first, the last one holding now
     * @throws InvalidFilterException naming {@code range} or {@code account} when it is not one
     */
    Series series(String range, String account) throws InvalidFilterException;

    /**
     * Chart data.
     *
     * @param range         {@code hour} or {@code week}
     * @param bucketSeconds a bucket's width
     * @param account       the account it is limited to, or null
     * @param buckets       the buckets, oldest first
     */
    record Series(String range, int bucketSeconds, String account, List<SeriesBucket> buckets) {
    }

    /**
     * One attachment with its bytes.
     *
     * @param filename    its file name
     * @param contentType its MIME type as stored
     * @param content     the bytes
     */
    record AttachmentFile(String filename, String contentType, byte[] content) {
    }
}
