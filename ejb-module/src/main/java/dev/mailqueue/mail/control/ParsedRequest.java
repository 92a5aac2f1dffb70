package dev.mailqueue.mail.control;

import dev.mailqueue.address.control.InvalidAddressException;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.api.MailRequest;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A request that passed {@link MailRequestValidator}, with its addresses parsed once ({@link MailboxParser}): what
 * the sender policy, the factory and the validator's own rules read, so none of them parses the From (or any other
 * address) again. The request itself is kept for its other fields, which it already holds in their final types.
 *
 * <p>Recipients are de-duplicated across To, Cc and Bcc, the first occurrence kept (To before Cc before Bcc),
 * comparing whole addresses (domain as A-labels) without regard to case. RFC 5321 §2.4 lets a server treat local
 * parts as case-sensitive, but every large mailbox provider ignores case, and a mail sent twice to the same mailbox
 * is the worse outcome; a recipient is also never sent the mail twice because it was named twice. An address that
 * appears only in a later list in another case is dropped from that list.
 *
 * @param request the request as validated (its template rendered)
 * @param from    the From mailbox
 * @param replyTo the Reply-To mailbox, or null
 * @param to      the To recipients, without repeats
 * @param cc      the Cc recipients, without repeats or any To recipient
 * @param bcc     the Bcc recipients, without repeats or any To or Cc recipient
 */
public record ParsedRequest(MailRequest request, Mailbox from, Mailbox replyTo, List<Mailbox> to, List<Mailbox> cc,
                            List<Mailbox> bcc) {

    /** @throws NullPointerException when the request, the From or a list is null */
    public ParsedRequest {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(from, "from");
        to = List.copyOf(to);
        cc = List.copyOf(cc);
        bcc = List.copyOf(bcc);
    }

    /**
     * @param request a request whose addresses are mailboxes (one that passed validation, or a raw mail's stored
     *                envelope, made of addresses that did)
     * @return it with each address parsed once and the recipients without repeats
     * @throws IllegalArgumentException when an address is no mailbox after all (the request was not validated)
     */
    public static ParsedRequest of(MailRequest request) {
        String replyTo = request.getReplyTo();
        return of(request, MailboxParser.parseValid(request.getFrom()),
                replyTo == null || replyTo.isBlank() ? null : MailboxParser.parseValid(replyTo),
                parseAll(request.getTo()), parseAll(request.getCc()), parseAll(request.getBcc()));
    }

    /**
     * @param request the request
     * @param from    its From, parsed
     * @param replyTo its Reply-To, parsed, or null
     * @param to      its To recipients, parsed, repeats and all
     * @param cc      its Cc recipients, likewise
     * @param bcc     its Bcc recipients, likewise
     * @return the request with those mailboxes and its recipients without repeats
     */
    static ParsedRequest of(MailRequest request, Mailbox from, Mailbox replyTo, List<Mailbox> to, List<Mailbox> cc,
                            List<Mailbox> bcc) {
        Set<String> seen = new HashSet<>();
        return new ParsedRequest(request, from, replyTo, distinct(to, seen), distinct(cc, seen), distinct(bcc, seen));
    }

    /** @return the To, Cc and Bcc recipients together, in that order: the envelope's recipients */
    public List<Mailbox> recipients() {
        List<Mailbox> all = new ArrayList<>(to.size() + cc.size() + bcc.size());
        all.addAll(to);
        all.addAll(cc);
        all.addAll(bcc);
        return all;
    }

    /** @return the sender's name: {@code fromName} when given, else the name given in {@code from}, else null */
    public String fromName() {
        String given = request.getFromName();
        return given != null && !given.isBlank() ? given : from.name();
    }

    /**
     * @param text a mailbox as a caller writes it, or null
     * @return it parsed, or null when it is null, blank or no mailbox (a rule of its own refuses it)
     */
    static Mailbox parseOrNull(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return MailboxParser.parse(text);
        } catch (InvalidAddressException e) {
            return null;
        }
    }

    private static List<Mailbox> parseAll(List<String> texts) {
        return texts == null ? List.of() : texts.stream().map(MailboxParser::parseValid).toList();
    }

    private static List<Mailbox> distinct(List<Mailbox> mailboxes, Set<String> seen) {
        List<Mailbox> kept = new ArrayList<>();
        for (Mailbox mailbox : mailboxes) {
            if (mailbox != null && seen.add(mailbox.address().toLowerCase(Locale.ROOT))) {
                kept.add(mailbox);
            }
        }
        return kept;
    }
}
