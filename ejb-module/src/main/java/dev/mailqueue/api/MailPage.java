package dev.mailqueue.api;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** One page of a mail search: the mails (without their attempt logs) and the total that matched. */
public class MailPage implements Serializable {

    private static final long serialVersionUID = 1L;

    private ArrayList<MailView> mails = new ArrayList<>();
    private long total;
    private int page;
    private int size;

    /** For JSON-B. */
    public MailPage() {
    }

    /**
     * @param mails the page's mails, in the order asked for
     * @param total how many mails match the filter in all
     * @param page  this page's number, from 0
     * @param size  the page size asked for
     */
    public MailPage(List<MailView> mails, long total, int page, int size) {
        this.mails = new ArrayList<>(mails);
        this.total = total;
        this.page = page;
        this.size = size;
    }

    public List<MailView> getMails() {
        return mails;
    }

    public void setMails(List<MailView> mails) {
        this.mails = new ArrayList<>(mails);
    }

    public long getTotal() {
        return total;
    }

    public void setTotal(long total) {
        this.total = total;
    }

    public int getPage() {
        return page;
    }

    public void setPage(int page) {
        this.page = page;
    }

    public int getSize() {
        return size;
    }

    public void setSize(int size) {
        this.size = size;
    }
}
