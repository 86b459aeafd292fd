// Tests for tests/xunit.sh: passing, failing and Assert.Throws tests, each
// with exceptions the tracer must follow to the catch that ends them (xunit
// invokes every test method through reflection).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using Xunit;

namespace XunitTests
{
    public class PassException : Exception { public PassException(string m) : base(m) { } }

    public class Tests
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Parse(string s) => int.Parse(s, CultureInfo.InvariantCulture);

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Fail(string why) => throw new InvalidOperationException(why);

        // passes, no exception
        [Fact]
        public void Adds() => Assert.Equal(4, 2 + 2);

        // passes: an exception thrown and caught inside the test
        [Fact]
        public void CatchesItsOwn()
        {
            int n;
            try { n = Parse("not a number"); }
            catch (FormatException) { n = -1; }
            Assert.Equal(-1, n);
        }

        // passes: Assert.Throws catches the exception it expects
        [Fact]
        public void ThrowsAsExpected()
        {
            var e = Assert.Throws<InvalidOperationException>(() => Fail("expected"));
            Assert.Equal("expected", e.Message);
        }

        // passes: the async form
        [Fact]
        public async Task ThrowsAsyncAsExpected()
        {
            await Assert.ThrowsAsync<PassException>(async () => { await Task.Yield(); throw new PassException("async"); });
        }

        // passes: a theory's two cases
        [Theory]
        [InlineData("1", 1)]
        [InlineData("22", 22)]
        public void ParsesTheory(string s, int want) => Assert.Equal(want, Parse(s));

        // fails: Assert.Equal throws Xunit.Sdk.EqualException
        [Fact]
        public void EqualFails() => Assert.Equal(5, 2 + 2);

        // fails: the test method throws FormatException
        [Fact]
        public void ThrowsFormatException() => Parse("forty-two");

        // fails: Assert.Throws gets another exception than it expects
        [Fact]
        public void ThrowsTheWrongType()
        {
            Assert.Throws<ArgumentException>(() => new Dictionary<string, int>()["missing"]);
        }
    }
}
