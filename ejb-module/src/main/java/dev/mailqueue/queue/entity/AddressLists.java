package dev.mailqueue.queue.entity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Stores a list of bare addresses as one comma-separated column. Bare addresses (validated by
 * {@link dev.mailqueue.api.validation.MailAddress}, which refuses quoted local parts and commas)
 * carry no comma, so the split is exact.
 *
 * <p>Not a JPA {@code AttributeConverter}: EclipseLink builds converters through CDI on first use, and
 * when another application's transaction commits our insert (a remote EJB caller), its thread has no
 * CDI bean manager for us, and the commit fails.
 */
public final class AddressLists {

    private AddressLists() {
    }

    public static String join(List<String> addresses) {
        return addresses == null || addresses.isEmpty() ? null : String.join(",", addresses);
    }

    public static List<String> split(String column) {
        return column == null || column.isEmpty()
                ? new ArrayList<>() : new ArrayList<>(Arrays.asList(column.split(",")));
    }
}
