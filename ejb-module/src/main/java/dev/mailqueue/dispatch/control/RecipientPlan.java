package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.settings.control.DeliveryMode;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whom one attempt of a mail is for, computed once per attempt before any account is tried: the recipients still
 * open (an earlier attempt may have settled some), those answered by the simulator or the SANDBOX mode instead of a
 * server ({@link Simulation}), those really sent to, and, on a REDIRECT server, the one address the mail goes to
 * instead. What depends on the account (SMTPUTF8) is asked of the plan per relay ({@link #envelopeFor(Relay)}).
 *
 * @param open              the recipients no earlier attempt settled, in header order
 * @param real              those of them sent to a server
 * @param simulated         one result per other open recipient
 * @param redirectTo        the address every real recipient's copy goes to instead; null unless redirected
 * @param settledBefore     true when earlier attempts settled some recipients
 * @param anyAcceptedBefore true when an earlier attempt had some recipient accept the mail
 * @param refusedBefore     the recipients earlier attempts refused for good, sorted, for the attempt's error
 * @param authorNeedsUtf8   the reason the mail cannot go without SMTPUTF8 at all (its sender's address or its raw
 *                          header fields), or null when it can
 * @param utf8              the envelope recipients split into those that can go without SMTPUTF8 and those that
 *                          cannot
 */
record RecipientPlan(Address[] open, Address[] real, List<RecipientResult> simulated, InternetAddress redirectTo,
                     boolean settledBefore, boolean anyAcceptedBefore, List<String> refusedBefore,
                     String authorNeedsUtf8, SmtpUtf8Gate.Split utf8) {

    /** The header field that names a redirected mail's recipients. */
    static final String ORIGINAL_TO = "X-Original-To";

    /**
     * The recipients of one hand-over to one relay.
     *
     * @param recipients  the envelope recipients, in order; empty when none can go through this relay
     * @param notSmtpUtf8 the recipients refused before the hand-over because the relay lacks SMTPUTF8
     * @param downgrade   true when the message must be written without UTF-8 (the relay lacks SMTPUTF8)
     */
    record Envelope(Address[] recipients, List<RecipientResult> notSmtpUtf8, boolean downgrade) {
    }

    /**
     * How a server treats recipients (settings read once per claimer).
     *
     * @param mode        this server's delivery mode
     * @param redirectTo  the redirect address of a REDIRECT server; null otherwise
     * @param maxAttempts the attempts a mail gets (to tell its first attempt)
     */
    record Policy(DeliveryMode mode, String redirectTo, int maxAttempts) {

        /**
         * @param mail    the claimed mail
         * @param message its composed message, whose recipients are the mail's To, Cc and Bcc
         * @return the plan of this attempt
         * @throws Unsendable when the message's recipients cannot be read or the redirect address is not one
         */
        RecipientPlan plan(ClaimedMail mail, GatedMessage message) throws Unsendable {
            Address[] open;
            try {
                open = Arrays.stream(message.getAllRecipients())
                        .filter(a -> !mail.settled().containsKey(key(a))).toArray(Address[]::new);
            } catch (MessagingException | RuntimeException e) {
                throw new Unsendable(Verdict.PERMANENT, "cannot compose the message: " + FailureText.describe(e), null);
            }
            Simulation.Split split = Simulation.split(open, mode, mail.attemptsRemaining() >= maxAttempts);
            InternetAddress redirect = null;
            if (mode == DeliveryMode.REDIRECT && split.real().length > 0) {
                try {
                    redirect = new InternetAddress(redirectTo);
                } catch (AddressException | RuntimeException e) {
                    throw new Unsendable(Verdict.PERMANENT, "cannot redirect the message: " + FailureText.describe(e), null);
                }
            }
            String authorNeedsUtf8 = message.needsSmtpUtf8() ? SmtpUtf8Gate.HEADER_REASON
                    : SmtpUtf8Gate.needsSmtpUtf8(mail.from()) ? SmtpUtf8Gate.SENDER_REASON : null;
            return new RecipientPlan(open, split.real(), split.simulated(), redirect, !mail.settled().isEmpty(),
                    mail.settled().containsValue(RecipientStatus.SENT), refusedBefore(mail), authorNeedsUtf8,
                    SmtpUtf8Gate.split(redirect != null ? new Address[]{redirect} : split.real()));
        }
    }

    /** @return true when earlier attempts settled every recipient: nothing is left to send */
    boolean nothingOpen() {
        return open.length == 0;
    }

    /** @return true when no open recipient is sent to a server: every one is simulated */
    boolean nothingReal() {
        return real.length == 0;
    }

    /** @return true when the mail goes to the redirect address instead of its recipients */
    boolean redirected() {
        return redirectTo != null;
    }

    /** @return true when some recipients of this attempt are settled elsewhere: each sent one gets a row of its own */
    boolean settlesOthers() {
        return settledBefore || !simulated.isEmpty();
    }

    /**
     * Marks a redirected message with the recipients it was meant for ({@value #ORIGINAL_TO}); does nothing
     * otherwise.
     *
     * @param message the composed message
     * @throws Unsendable when the field cannot be written
     */
    void prepare(GatedMessage message) throws Unsendable {
        if (redirectTo == null) {
            return;
        }
        try {
            message.setHeader(ORIGINAL_TO, InternetAddress.toString(real, ORIGINAL_TO.length() + 2));
        } catch (MessagingException e) {
            throw new Unsendable(Verdict.PERMANENT, "cannot redirect the message: " + FailureText.describe(e), null);
        }
    }

    /**
     * @param relay the relay of the hand-over: asked whether it offers SMTPUTF8 only when the mail needs it
     * @return the recipients that go through the relay, and those refused for want of SMTPUTF8 (RFC 6531 §3.2)
     * @throws Unsendable when the mail's author or header fields need SMTPUTF8 and the relay lacks it: PERMANENT
     */
    Envelope envelopeFor(Relay relay) throws Unsendable {
        if (authorNeedsUtf8 == null && utf8.refused().isEmpty() || relay.offersSmtpUtf8()) {
            return new Envelope(redirectTo != null ? new Address[]{redirectTo} : real, List.of(), false);
        }
        if (authorNeedsUtf8 != null) {
            throw new Unsendable(Verdict.PERMANENT, authorNeedsUtf8, relay.account());
        }
        return new Envelope(utf8.sendable(), utf8.refused(), true);
    }

    /**
     * @param mail    a claimed mail
     * @param address one of its recipients, a bare address
     * @return the recipient's position among the mail's To, Cc and Bcc (the first of that address, compared without
     *         case), as a per-recipient VERP token names it
     * @throws IllegalArgumentException when the address is not a recipient of the mail
     */
    static int position(ClaimedMail mail, String address) {
        String key = address.toLowerCase(Locale.ROOT);
        int i = 0;
        for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
            for (String listed : list) {
                if (listed.toLowerCase(Locale.ROOT).equals(key)) {
                    return i;
                }
                i++;
            }
        }
        throw new IllegalArgumentException("not a recipient of mail " + mail.id() + ": " + key);
    }

    /** @return the address as the recipient table keys it: the bare address, lower case */
    static String key(Address address) {
        return PartialDelivery.bare(address).toLowerCase(Locale.ROOT);
    }

    private static List<String> refusedBefore(ClaimedMail mail) {
        return mail.settled().entrySet().stream().filter(e -> e.getValue() == RecipientStatus.REFUSED)
                .map(Map.Entry::getKey).sorted().toList();
    }
}
