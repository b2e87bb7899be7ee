package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Outcome;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of the clients takes and returns Ordo's own types (issue 50): no Avro-generated class
 * of {@code dev.ordo.schema} appears in a public or protected signature (parameters, return types,
 * generic type arguments, fields, supertypes) of a public class of the public packages, everything
 * under {@code dev.ordo.client} but its {@code internal} packages.
 */
class PublicApiTypesTest {
  private static final String WIRE_PACKAGE = "dev.ordo.schema.";

  @Test
  void noPublicSignatureOfThePublicPackagesNamesAnAvroGeneratedType() throws Exception {
    List<Class<?>> api = publicClasses();
    List<String> leaks = new ArrayList<>();
    api.forEach(c -> leaks.addAll(leaks(c)));
    assertEquals(List.of(), leaks);
  }

  @Test
  void theScanCoversEveryPublicPackage() throws Exception {
    List<Class<?>> api = publicClasses();
    for (Class<?> c : List.of(QueueClient.class, QueueClient.Scoped.class, LeaseConsumer.class, LeasedItem.class,
        QueueProducer.class, QueueItem.class, CommandOutcome.class, NamespaceAdmin.class,
        dev.ordo.client.dlq.DeadLetters.class, dev.ordo.client.dlq.DlqJobRunner.class,
        dev.ordo.client.purge.TopicPurges.class, dev.ordo.client.stream.StreamConsumer.class)) {
      assertTrue(api.contains(c), c + " scanned");
    }
    assertTrue(api.stream().noneMatch(c -> c.getName().contains(".internal.")), "internal packages left out");
  }

  /** A class that leaks wire types, to show the check finds each kind of leak. */
  public static class Leaky {
    public DeliveredItem field;

    public Leaky(Outcome o) {}

    public CompletableFuture<List<DeliveredItem>> nested() {
      return null;
    }

    protected void parameter(Map<String, ? extends Outcome> outcomes) {}

    public void fine(QueueItem item) {}

    void packagePrivateIsNotApi(DeliveredItem item) {}
  }

  @Test
  void theCheckFindsFieldsParametersReturnTypesAndTypeArguments() {
    List<String> leaks = leaks(Leaky.class);
    assertEquals(4, leaks.size(), leaks.toString());
    assertTrue(leaks.stream().anyMatch(l -> l.contains("field")), leaks.toString());
    assertTrue(leaks.stream().anyMatch(l -> l.contains("nested")), leaks.toString());
    assertTrue(leaks.stream().anyMatch(l -> l.contains("parameter")), leaks.toString());
    assertTrue(leaks.stream().anyMatch(l -> l.contains("Leaky(")), leaks.toString());
  }

  /** The public classes (nested ones included) under dev.ordo.client, but for internal packages. */
  private static List<Class<?>> publicClasses() throws IOException, URISyntaxException, ClassNotFoundException {
    Path root = Path.of(QueueClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Class<?>> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root.resolve("dev/ordo/client"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = root.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".")
            .replaceAll("\\.class$", "");
        if (name.contains(".internal.")) {
          continue;
        }
        Class<?> c = Class.forName(name, false, PublicApiTypesTest.class.getClassLoader());
        if (visible(c)) {
          out.add(c);
        }
      }
    }
    assertTrue(out.size() > 30, "found the compiled classes at " + root + ": " + out.size());
    return out;
  }

  /** Public, and so is every class it is nested in. */
  private static boolean visible(Class<?> c) {
    for (Class<?> x = c; x != null; x = x.getEnclosingClass()) {
      if (!Modifier.isPublic(x.getModifiers()) || x.isAnonymousClass() || x.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  private static boolean api(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  /** Each public or protected member (and supertype) of {@code c} whose signature names a wire type. */
  private static List<String> leaks(Class<?> c) {
    List<String> out = new ArrayList<>();
    List<Type> supers = new ArrayList<>(List.of(c.getGenericInterfaces()));
    if (c.getGenericSuperclass() != null) {
      supers.add(c.getGenericSuperclass());
    }
    supers.stream().filter(PublicApiTypesTest::namesWireType).forEach(t -> out.add(c.getName() + " extends " + t));
    for (Field f : c.getDeclaredFields()) {
      if (api(f.getModifiers()) && !f.isSynthetic() && namesWireType(f.getGenericType())) {
        out.add(f.toGenericString());
      }
    }
    for (Method m : c.getDeclaredMethods()) {
      if (api(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()
          && (namesWireType(m.getGenericReturnType()) || Stream.of(m.getGenericParameterTypes()).anyMatch(PublicApiTypesTest::namesWireType))) {
        out.add(m.toGenericString());
      }
    }
    for (Constructor<?> k : c.getDeclaredConstructors()) {
      if (api(k.getModifiers()) && Stream.of(k.getGenericParameterTypes()).anyMatch(PublicApiTypesTest::namesWireType)) {
        out.add(k.toGenericString());
      }
    }
    return out;
  }

  private static boolean namesWireType(Type t) {
    if (t instanceof Class<?> k) {
      return k.isArray() ? namesWireType(k.getComponentType()) : k.getName().startsWith(WIRE_PACKAGE);
    }
    if (t instanceof ParameterizedType p) {
      return namesWireType(p.getRawType()) || Stream.of(p.getActualTypeArguments()).anyMatch(PublicApiTypesTest::namesWireType);
    }
    if (t instanceof WildcardType w) {
      return Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
          .anyMatch(PublicApiTypesTest::namesWireType);
    }
    if (t instanceof GenericArrayType a) {
      return namesWireType(a.getGenericComponentType());
    }
    if (t instanceof TypeVariable<?> v) {
      return Stream.of(v.getBounds()).anyMatch(PublicApiTypesTest::namesWireType);
    }
    return false;
  }
}
