package dev.mailqueue.mail.entity;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Stores a list of bare addresses as one comma-separated column. Bare addresses (validated by
 * {@link dev.mailqueue.api.validation.MailAddress}) contain no comma outside a quoted local part,
 * and those are refused before they get here, so the split is exact.
 */
@Converter
public class AddressListConverter implements AttributeConverter<List<String>, String> {

    @Override
    public String convertToDatabaseColumn(List<String> addresses) {
        return addresses == null || addresses.isEmpty() ? null : String.join(",", addresses);
    }

    @Override
    public List<String> convertToEntityAttribute(String column) {
        if (column == null || column.isEmpty()) {
            return new ArrayList<>();
        }
        return new ArrayList<>(Arrays.asList(column.split(",")));
    }
}
