NAME        
ROWS
 N  Obj     
 E  r0      
 E  r1      
 E  r2      
 E  r3      
 E  r4      
 E  r5      
 E  r6      
 E  r7      
 E  r8      
 L  r9      
 L  r10     
 L  r11     
 L  r12     
 L  r13     
 L  r14     
 L  r15     
 L  r16     
 L  r17     
 L  r18     
 L  r19     
 L  r20     
 L  r21     
 L  r22     
 L  r23     
 L  r24     
 L  r25     
 L  r26     
 L  r27     
 L  r28     
 L  r29     
 L  r30     
 L  r31     
 L  r32     
 L  r33     
 L  r34     
 L  r35     
 L  r36     
 L  r37     
 G  r38     
 G  r39     
 G  r40     
 G  r41     
 G  r42     
 G  r43     
 G  r44     
 G  r45     
 E  r46     
 E  r47     
 E  r48     
 E  r49     
 E  r50     
 E  r51     
 E  r52     
 E  r53     
 E  r54     
 E  r55     
 E  r56     
 E  r57     
 E  r58     
 E  r59     
 E  r60     
 E  r61     
 E  r62     
 E  r63     
 E  r64     
 E  r65     
 E  r66     
 E  r67     
 E  r68     
 E  r69     
 E  r70     
 E  r71     
 E  r72     
 E  r73     
 E  r74     
 E  r75     
 E  r76     
 E  r77     
 E  r78     
 E  r79     
 E  r80     
 E  r81     
 E  r82     
 E  r83     
 E  r84     
 E  r85     
 E  r86     
 E  r87     
 E  r88     
 E  r89     
 E  r90     
 E  r91     
 E  r92     
 E  r93     
 L  r94     
 L  r95     
 L  r96     
 L  r97     
 L  r98     
 L  r99     
 L  r100    
 L  r101    
COLUMNS
    MARK0000  'MARKER'                 'INTORG'
    c0        r9        -1
    c0        r10       -1
    c0        r38       -2
    c1        r11       -1
    c1        r12       -1
    c1        r13       -1
    c1        r39       -2
    c2        r14       -1
    c2        r15       -1
    c2        r16       -1
    c2        r17       -1
    c2        r40       -2
    c3        r18       -1
    c3        r19       -1
    c3        r41       -2
    c4        r20       -1
    c4        r21       -1
    c4        r22       -1
    c4        r42       -2
    c5        r23       -1
    c5        r24       -1
    c5        r25       -1
    c5        r26       -1
    c5        r43       -2
    c6        r27       -1
    c6        r28       -1
    c6        r44       -2
    c7        r29       -1
    c7        r30       -1
    c7        r31       -1
    c7        r32       -1
    c7        r33       -1
    c7        r34       -1
    c7        r35       -1
    c7        r36       -1
    c7        r37       -1
    c7        r45       -2
    c8        r4        1
    c8        r9        1
    c8        r38       1
    c8        r46       -1
    c8        r54       -1
    c9        r5        1
    c9        r10       1
    c9        r38       1
    c9        r46       -1
    c9        r55       -1
    c10       Obj       1
    c10       r0        1
    c10       r11       1
    c10       r39       1
    c10       r47       -1
    c10       r56       -1
    c11       Obj       1
    c11       r1        1
    c11       r12       1
    c11       r39       1
    c11       r47       -1
    c11       r57       -1
    c12       Obj       1
    c12       r2        1
    c12       r13       1
    c12       r39       1
    c12       r47       -1
    c12       r56       -1
    c13       Obj       1
    c13       r3        1
    c13       r14       1
    c13       r40       1
    c13       r48       -1
    c13       r59       -1
    c14       Obj       1
    c14       r4        1
    c14       r15       1
    c14       r40       1
    c14       r48       -1
    c14       r58       -1
    c15       Obj       1
    c15       r5        1
    c15       r16       1
    c15       r40       1
    c15       r48       -1
    c15       r59       -1
    c16       Obj       1
    c16       r6        1
    c16       r17       1
    c16       r40       1
    c16       r48       -1
    c16       r59       -1
    c17       Obj       1
    c17       r7        1
    c17       r18       1
    c17       r41       1
    c17       r49       -1
    c17       r60       -1
    c18       Obj       1
    c18       r8        1
    c18       r19       1
    c18       r41       1
    c18       r49       -1
    c18       r60       -1
    c19       Obj       1
    c19       r0        1
    c19       r20       1
    c19       r42       1
    c19       r50       -1
    c19       r62       -1
    c20       Obj       1
    c20       r3        1
    c20       r21       1
    c20       r42       1
    c20       r50       -1
    c20       r62       -1
    c21       Obj       1
    c21       r7        1
    c21       r22       1
    c21       r42       1
    c21       r50       -1
    c21       r61       -1
    c22       Obj       1
    c22       r1        1
    c22       r23       1
    c22       r43       1
    c22       r51       -1
    c22       r65       -1
    c23       Obj       1
    c23       r4        1
    c23       r24       1
    c23       r43       1
    c23       r51       -1
    c23       r63       -1
    c24       Obj       1
    c24       r5        1
    c24       r25       1
    c24       r43       1
    c24       r51       -1
    c24       r64       -1
    c25       Obj       1
    c25       r8        1
    c25       r26       1
    c25       r43       1
    c25       r51       -1
    c25       r63       -1
    c26       Obj       1
    c26       r2        1
    c26       r27       1
    c26       r44       1
    c26       r52       -1
    c26       r66       -1
    c27       Obj       1
    c27       r6        1
    c27       r28       1
    c27       r44       1
    c27       r52       -1
    c27       r66       -1
    c28       Obj       2
    c28       r0        1
    c28       r29       1
    c28       r45       1
    c28       r53       -1
    c28       r68       -1
    c29       Obj       2
    c29       r1        1
    c29       r30       1
    c29       r45       1
    c29       r53       -1
    c29       r69       -1
    c30       Obj       2
    c30       r2        1
    c30       r31       1
    c30       r45       1
    c30       r53       -1
    c30       r68       -1
    c31       Obj       2
    c31       r3        1
    c31       r32       1
    c31       r45       1
    c31       r53       -1
    c31       r68       -1
    c32       Obj       2
    c32       r4        1
    c32       r33       1
    c32       r45       1
    c32       r53       -1
    c32       r67       -1
    c33       Obj       2
    c33       r5        1
    c33       r34       1
    c33       r45       1
    c33       r53       -1
    c33       r68       -1
    c34       Obj       2
    c34       r6        1
    c34       r35       1
    c34       r45       1
    c34       r53       -1
    c34       r68       -1
    c35       Obj       2
    c35       r7        1
    c35       r36       1
    c35       r45       1
    c35       r53       -1
    c35       r67       -1
    c36       Obj       2
    c36       r8        1
    c36       r37       1
    c36       r45       1
    c36       r53       -1
    c36       r67       -1
    MARK0001  'MARKER'                 'INTEND'
    c37       r46       1
    c37       r70       3
    c37       r71       5
    c37       r72       1
    c37       r94       -9
    c38       r47       1
    c38       r73       3
    c38       r74       5
    c38       r75       1
    c38       r95       -9
    c39       r48       1
    c39       r76       3
    c39       r77       5
    c39       r78       1
    c39       r96       -9
    c40       r49       1
    c40       r79       3
    c40       r80       5
    c40       r81       1
    c40       r97       -9
    c41       r50       1
    c41       r82       3
    c41       r83       5
    c41       r84       1
    c41       r98       -9
    c42       r51       1
    c42       r85       3
    c42       r86       5
    c42       r87       1
    c42       r99       -9
    c43       r52       1
    c43       r88       3
    c43       r89       5
    c43       r90       1
    c43       r100      -9
    c44       r53       1
    c44       r91       3
    c44       r92       5
    c44       r93       1
    c44       r101      -9
    c45       r54       1
    c45       r70       -9
    c46       r55       1
    c46       r71       -9
    c47       r56       1
    c47       r74       -9
    c48       r57       1
    c48       r75       -9
    c49       r58       1
    c49       r76       -9
    c50       r59       1
    c50       r77       -9
    c51       r60       1
    c51       r79       -9
    c52       r61       1
    c52       r82       -9
    c53       r62       1
    c53       r83       -9
    c54       r63       1
    c54       r85       -9
    c55       r64       1
    c55       r86       -9
    c56       r65       1
    c56       r87       -9
    c57       r66       1
    c57       r89       -9
    c58       r67       1
    c58       r91       -9
    c59       r68       1
    c59       r92       -9
    c60       r69       1
    c60       r93       -9
    c61       r70       1
    c61       r71       -1
    c61       r94       2
    c62       r70       1
    c62       r72       -1
    c62       r94       4
    c63       r70       -1
    c63       r71       1
    c63       r94       2
    c64       r71       1
    c64       r72       -1
    c64       r94       4
    c65       r70       -1
    c65       r72       1
    c65       r94       4
    c66       r71       -1
    c66       r72       1
    c66       r94       4
    c67       r73       1
    c67       r74       -1
    c67       r95       2
    c68       r73       1
    c68       r75       -1
    c68       r95       4
    c69       r73       -1
    c69       r74       1
    c69       r95       2
    c70       r74       1
    c70       r75       -1
    c70       r95       4
    c71       r73       -1
    c71       r75       1
    c71       r95       4
    c72       r74       -1
    c72       r75       1
    c72       r95       4
    c73       r76       1
    c73       r77       -1
    c73       r96       2
    c74       r76       1
    c74       r78       -1
    c74       r96       4
    c75       r76       -1
    c75       r77       1
    c75       r96       2
    c76       r77       1
    c76       r78       -1
    c76       r96       4
    c77       r76       -1
    c77       r78       1
    c77       r96       4
    c78       r77       -1
    c78       r78       1
    c78       r96       4
    c79       r79       1
    c79       r80       -1
    c79       r97       2
    c80       r79       1
    c80       r81       -1
    c80       r97       4
    c81       r79       -1
    c81       r80       1
    c81       r97       2
    c82       r80       1
    c82       r81       -1
    c82       r97       4
    c83       r79       -1
    c83       r81       1
    c83       r97       4
    c84       r80       -1
    c84       r81       1
    c84       r97       4
    c85       r82       1
    c85       r83       -1
    c85       r98       2
    c86       r82       1
    c86       r84       -1
    c86       r98       4
    c87       r82       -1
    c87       r83       1
    c87       r98       2
    c88       r83       1
    c88       r84       -1
    c88       r98       4
    c89       r82       -1
    c89       r84       1
    c89       r98       4
    c90       r83       -1
    c90       r84       1
    c90       r98       4
    c91       r85       1
    c91       r86       -1
    c91       r99       2
    c92       r85       1
    c92       r87       -1
    c92       r99       4
    c93       r85       -1
    c93       r86       1
    c93       r99       2
    c94       r86       1
    c94       r87       -1
    c94       r99       4
    c95       r85       -1
    c95       r87       1
    c95       r99       4
    c96       r86       -1
    c96       r87       1
    c96       r99       4
    c97       r88       1
    c97       r89       -1
    c97       r100      2
    c98       r88       1
    c98       r90       -1
    c98       r100      4
    c99       r88       -1
    c99       r89       1
    c99       r100      2
    c100      r89       1
    c100      r90       -1
    c100      r100      4
    c101      r88       -1
    c101      r90       1
    c101      r100      4
    c102      r89       -1
    c102      r90       1
    c102      r100      4
    c103      r91       1
    c103      r92       -1
    c103      r101      2
    c104      r91       1
    c104      r93       -1
    c104      r101      4
    c105      r91       -1
    c105      r92       1
    c105      r101      2
    c106      r92       1
    c106      r93       -1
    c106      r101      4
    c107      r91       -1
    c107      r93       1
    c107      r101      4
    c108      r92       -1
    c108      r93       1
    c108      r101      4
RHS
    RHS_V     r0        1
    RHS_V     r1        1
    RHS_V     r2        1
    RHS_V     r3        1
    RHS_V     r4        1
    RHS_V     r5        1
    RHS_V     r6        1
    RHS_V     r7        1
    RHS_V     r8        1
BOUNDS
 BV BOUND     c0      
 BV BOUND     c1      
 BV BOUND     c2      
 BV BOUND     c3      
 BV BOUND     c4      
 BV BOUND     c5      
 BV BOUND     c6      
 BV BOUND     c7      
 BV BOUND     c8      
 BV BOUND     c9      
 BV BOUND     c10     
 BV BOUND     c11     
 BV BOUND     c12     
 BV BOUND     c13     
 BV BOUND     c14     
 BV BOUND     c15     
 BV BOUND     c16     
 BV BOUND     c17     
 BV BOUND     c18     
 BV BOUND     c19     
 BV BOUND     c20     
 BV BOUND     c21     
 BV BOUND     c22     
 BV BOUND     c23     
 BV BOUND     c24     
 BV BOUND     c25     
 BV BOUND     c26     
 BV BOUND     c27     
 BV BOUND     c28     
 BV BOUND     c29     
 BV BOUND     c30     
 BV BOUND     c31     
 BV BOUND     c32     
 BV BOUND     c33     
 BV BOUND     c34     
 BV BOUND     c35     
 BV BOUND     c36     
 UP BOUND     c37       2
 UP BOUND     c38       3
 UP BOUND     c39       4
 UP BOUND     c40       2
 UP BOUND     c41       3
 UP BOUND     c42       4
 UP BOUND     c43       2
 UP BOUND     c44       9
 UP BOUND     c45       1
 UP BOUND     c46       1
 UP BOUND     c47       2
 UP BOUND     c48       1
 UP BOUND     c49       1
 UP BOUND     c50       3
 UP BOUND     c51       2
 UP BOUND     c52       1
 UP BOUND     c53       2
 UP BOUND     c54       2
 UP BOUND     c55       1
 UP BOUND     c56       1
 UP BOUND     c57       2
 UP BOUND     c58       3
 UP BOUND     c59       5
 UP BOUND     c60       1
ENDATA
