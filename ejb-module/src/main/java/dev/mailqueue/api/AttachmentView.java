package dev.mailqueue.api;

import java.io.Serializable;

/** An attachment of a queued mail as {@code GET /api/mails/{id}} shows it: name, type and size, without the bytes. */
public class AttachmentView implements Serializable {

    private static final long serialVersionUID = 1L;

    private String filename;
    private String contentType;
    private long sizeBytes;

    /** For JSON-B. */
    public AttachmentView() {
    }

    /**
     * @param filename    the file name
     * @param contentType the MIME type
     * @param sizeBytes   the content's size in bytes, before base64
     */
    public AttachmentView(String filename, String contentType, long sizeBytes) {
        this.filename = filename;
        this.contentType = contentType;
        this.sizeBytes = sizeBytes;
    }

    public String getFilename() {
        return filename;
    }

    public void setFilename(String filename) {
        this.filename = filename;
    }

    public String getContentType() {
        return contentType;
    }

    public void setContentType(String contentType) {
        this.contentType = contentType;
    }

    /** @return the content's size in bytes, before base64 */
    public long getSizeBytes() {
        return sizeBytes;
    }

    public void setSizeBytes(long sizeBytes) {
        this.sizeBytes = sizeBytes;
    }
}
