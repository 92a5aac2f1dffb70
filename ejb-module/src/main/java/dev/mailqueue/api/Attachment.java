package dev.mailqueue.api;

import java.io.Serializable;

/**
 * One file attached to a mail: its name as the recipient sees it, its MIME type and its bytes. In the
 * JSON of {@code POST /api/mails} the content is base64 (RFC 4648 §4, without line breaks); over the
 * EJB views it is the raw bytes. The limits (count, total size, blocked file name extensions) are the
 * queue's configuration; a request that breaks one is refused whole with an
 * {@link InvalidMailException} naming {@code attachments[i].field}.
 */
public class Attachment implements Serializable {

    private static final long serialVersionUID = 1L;

    private String filename;
    private String contentType;
    private byte[] content;

    /** An empty attachment, for JSON-B; fill it through the setters. */
    public Attachment() {
    }

    /**
     * @param filename    the file's name, e.g. {@code invoice-4711.pdf}
     * @param contentType its MIME type, e.g. {@code application/pdf}; null means
     *                    {@code application/octet-stream}
     * @param content     its bytes
     */
    public Attachment(String filename, String contentType, byte[] content) {
        this.filename = filename;
        this.contentType = contentType;
        this.content = content;
    }

    /**
     * @return the file name, required, 1 to 255 characters, no path separators or control characters,
     *         and not ending in a blocked extension
     */
    public String getFilename() {
        return filename;
    }

    public void setFilename(String filename) {
        this.filename = filename;
    }

    /**
     * @return the MIME type (RFC 2045 §5.1), at most 255 characters, not multipart or message; null
     *         means {@code application/octet-stream}
     */
    public String getContentType() {
        return contentType;
    }

    public void setContentType(String contentType) {
        this.contentType = contentType;
    }

    /** @return the bytes, required (may be empty); base64 in JSON */
    public byte[] getContent() {
        return content;
    }

    public void setContent(byte[] content) {
        this.content = content;
    }
}
