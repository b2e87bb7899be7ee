package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** SQS's MD5OfMessageAttributes against digests other SQS implementations publish, the header form, and the checks. */
class MessageAttributesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static MessageAttributes parse(String json) throws Exception {
    return MessageAttributes.parse(JSON.readTree(json));
  }

  @Test
  void md5MatchesPublishedDigests() throws Exception {
    assertEquals("d21ae90c49061e927f57df5f5d72be1f", parse("{\"ordinal\": {\"DataType\": \"Number\", \"StringValue\": \"1\"},"
        + " \"category\": {\"DataType\": \"String\", \"StringValue\": \"test\"}}").md5(), "sqslite's (Go SDK) vector");
    assertEquals("235c5c510d26fb653d073faed50ae77c", parse("{\"timestamp\": {\"DataType\": \"Number\","
        + " \"StringValue\": \"1493147359900\"}}").md5(), "LocalStack's vector");
    assertEquals("cd28f3b68aeee4b2eac9c66f2f694b58", parse("{\"SellerName\": {\"DataType\": \"String\","
        + " \"StringValue\": \"Example Store\"}}").md5());
    assertNull(MessageAttributes.NONE.md5(), "no attributes, no digest");
    assertEquals("5d41402abc4b2a76b9719d911017c592", MessageAttributes.md5Hex("hello".getBytes()), "MD5OfMessageBody");
  }

  @Test
  void theHeaderFormReadsBackWhatWasWritten() throws Exception {
    Random random = new Random(47);
    for (int round = 0; round < 200; round++) {
      StringBuilder json = new StringBuilder("{");
      int n = 1 + random.nextInt(MessageAttributes.MAX_ATTRIBUTES);
      for (int i = 0; i < n; i++) {
        byte[] bytes = new byte[1 + random.nextInt(40)];
        random.nextBytes(bytes);
        json.append(i == 0 ? "" : ",").append("\"a").append(i).append(random.nextInt(1000)).append("\": ")
            .append(switch (random.nextInt(3)) {
              case 0 -> "{\"DataType\": \"Binary\", \"BinaryValue\": \"" + java.util.Base64.getEncoder().encodeToString(bytes)
                  + "\"}";
              case 1 -> "{\"DataType\": \"Number.n\", \"StringValue\": \"" + random.nextLong() + "\"}";
              default -> "{\"DataType\": \"String\", \"StringValue\": \"s\\u00fc\\u4e2d " + random.nextInt() + "\"}";
            });
      }
      MessageAttributes a = parse(json.append("}").toString());
      MessageAttributes back = MessageAttributes.decode(a.encode());
      assertEquals(a.values().keySet(), back.values().keySet());
      a.values().forEach((k, v) -> {
        assertEquals(v.dataType(), back.values().get(k).dataType());
        assertArrayEquals(v.bytes(), back.values().get(k).bytes());
      });
      assertEquals(a.md5(), back.md5());
    }
  }

  @Test
  void selectTakesAllANameOrAPrefix() throws Exception {
    MessageAttributes a = parse("{\"app.kind\": {\"DataType\": \"String\", \"StringValue\": \"k\"},"
        + " \"app.size\": {\"DataType\": \"Number\", \"StringValue\": \"1\"}, \"other\": {\"DataType\": \"String\","
        + " \"StringValue\": \"o\"}}");
    assertEquals(3, a.select(List.of("All")).values().size());
    assertEquals(3, a.select(List.of(".*")).values().size());
    assertEquals(List.of("app.kind", "app.size"), List.copyOf(a.select(List.of("app.*")).values().keySet()));
    assertEquals(List.of("other"), List.copyOf(a.select(List.of("other")).values().keySet()));
    assertEquals(0, a.select(List.of()).values().size(), "none asked for, none returned");
  }

  @Test
  void badAttributesAreRefusedAsSqsRefusesThem() {
    for (String bad : List.of("{\"n\": {\"DataType\": \"Number\", \"StringValue\": \"many\"}}",
        "{\"n\": {\"DataType\": \"Date\", \"StringValue\": \"x\"}}",
        "{\"n\": {\"DataType\": \"String\"}}",
        "{\"AWS.x\": {\"DataType\": \"String\", \"StringValue\": \"x\"}}",
        "{\"a..b\": {\"DataType\": \"String\", \"StringValue\": \"x\"}}",
        "{\"n\": {\"DataType\": \"String\", \"StringValue\": \"\\u0001\"}}",
        "{\"n\": {\"DataType\": \"Binary\", \"BinaryValue\": \"!!\"}}")) {
      SqsException e = assertThrows(SqsException.class, () -> parse(bad), bad);
      assertEquals(bad.contains("u0001") ? SqsError.INVALID_MESSAGE_CONTENTS : SqsError.INVALID_PARAMETER_VALUE,
          e.error(), bad);
    }
    StringBuilder eleven = new StringBuilder("{");
    for (int i = 0; i < 11; i++) {
      eleven.append(i == 0 ? "" : ",").append("\"a").append(i).append("\": {\"DataType\": \"String\", \"StringValue\": \"x\"}");
    }
    assertThrows(SqsException.class, () -> parse(eleven.append("}").toString()));
  }
}
