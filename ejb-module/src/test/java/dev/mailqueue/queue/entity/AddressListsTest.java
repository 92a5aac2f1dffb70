package dev.mailqueue.queue.entity;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A recipient list survives its trip through the one-column form it is stored in. */
class AddressListsTest {

    @Test
    void recipientsComeBackAsTheyWereStored() {
        List<String> recipients = List.of("alice@example.com", "bob+tag@example.org", "jörg@example.de");

        assertThat(AddressLists.split(AddressLists.join(recipients)))
                .containsExactlyElementsOf(recipients);
    }

    @Test
    void noRecipientsAreStoredAsNullAndComeBackAsAnEmptyList() {
        assertThat(AddressLists.join(List.of())).isNull();
        assertThat(AddressLists.join(null)).isNull();
        assertThat(AddressLists.split(null)).isEmpty();
    }

    @Test
    void aListReadBackCanBeChanged() {
        List<String> read = AddressLists.split("a@example.com");

        read.add("b@example.com");

        assertThat(read).containsExactly("a@example.com", "b@example.com");
    }
}
