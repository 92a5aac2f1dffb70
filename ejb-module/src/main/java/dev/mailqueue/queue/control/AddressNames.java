package dev.mailqueue.queue.control;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The display names of a mail's Reply-To and recipients, kept apart from the addresses (V10's
 * ADDRESS_NAMES column). The address columns keep one bare address per recipient, comma-separated, as
 * before: everything that keys on addresses (recipient rows, suppression, bounces, VERP, unsubscribe
 * links) reads them unchanged, and rows queued before V10 have no names. Names may hold commas and quotes
 * but no control characters ({@code MailboxParser} refuses them), so the column holds one line per named
 * address, {@code <field><index> TAB <name>}, with field {@code r} (Reply-To, index 0), {@code t}, {@code c}
 * or {@code b} and the address's position in its list; unnamed addresses have no line, a mail without any
 * name stores null. At most 101 lines of at most 200 characters of name each.
 *
 * @param replyTo the Reply-To name, or null
 * @param to      the To names by position, an entry null where the address has none
 * @param cc      the Cc names by position
 * @param bcc     the Bcc names by position (never written into a header)
 */
public record AddressNames(String replyTo, Map<Integer, String> to, Map<Integer, String> cc, Map<Integer, String> bcc) {

    /** No names at all. */
    public static final AddressNames NONE = new AddressNames(null, Map.of(), Map.of(), Map.of());

    /**
     * @param replyTo the Reply-To name, or null
     * @param to      the To names aligned with the To addresses, null entries for none
     * @param cc      the Cc names, aligned
     * @param bcc     the Bcc names, aligned
     * @return the names
     */
    public static AddressNames of(String replyTo, List<String> to, List<String> cc, List<String> bcc) {
        return new AddressNames(replyTo, index(to), index(cc), index(bcc));
    }

    /** @return the To name of the address at {@code position}, or null */
    public String toName(int position) {
        return to.get(position);
    }

    /** @return the Cc name of the address at {@code position}, or null */
    public String ccName(int position) {
        return cc.get(position);
    }

    /** @return the Bcc name of the address at {@code position}, or null */
    public String bccName(int position) {
        return bcc.get(position);
    }

    /** @return the column's text, or null when there is no name */
    public String encode() {
        StringBuilder text = new StringBuilder();
        if (replyTo != null) {
            text.append("r0\t").append(replyTo).append('\n');
        }
        append(text, 't', to);
        append(text, 'c', cc);
        append(text, 'b', bcc);
        return text.isEmpty() ? null : text.toString();
    }

    /**
     * @param column the column's text, or null
     * @return the names; {@link #NONE} for null (also every row queued before V10)
     * @throws IllegalArgumentException when a line is not of the form {@link #encode()} writes
     */
    public static AddressNames decode(String column) {
        if (column == null || column.isEmpty()) {
            return NONE;
        }
        String replyTo = null;
        Map<Integer, String> to = new TreeMap<>();
        Map<Integer, String> cc = new TreeMap<>();
        Map<Integer, String> bcc = new TreeMap<>();
        for (String line : column.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab < 2) {
                throw new IllegalArgumentException("not a line of address names: " + line);
            }
            int position = Integer.parseInt(line.substring(1, tab));
            String name = line.substring(tab + 1);
            switch (line.charAt(0)) {
                case 'r' -> replyTo = name;
                case 't' -> to.put(position, name);
                case 'c' -> cc.put(position, name);
                case 'b' -> bcc.put(position, name);
                default -> throw new IllegalArgumentException("not a line of address names: " + line);
            }
        }
        return new AddressNames(replyTo, Collections.unmodifiableMap(to), Collections.unmodifiableMap(cc),
                Collections.unmodifiableMap(bcc));
    }

    private static Map<Integer, String> index(List<String> names) {
        Map<Integer, String> result = new TreeMap<>();
        if (names != null) {
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i) != null) {
                    result.put(i, names.get(i));
                }
            }
        }
        return Collections.unmodifiableMap(result);
    }

    private static void append(StringBuilder text, char field, Map<Integer, String> names) {
        new TreeMap<>(names).forEach((position, name) ->
                text.append(field).append(position).append('\t').append(name).append('\n'));
    }
}
