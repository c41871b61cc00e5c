; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint>" = type opaque

@drawCounts = external constant %"class.RWStructuredBuffer<uint>"

declare void @Chunks()

declare void @Classify()

declare void @Material()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !18, !27}
!wgc.spirv.entryPoints = !{!31, !32, !33}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @drawCounts, !"drawCounts", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @Chunks, !"Chunks", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !10, i32 16, i32 -1, i32 22, !11, i32 20, !12, i32 4, !16, i32 5, !17}
!10 = !{!"Chunks", i32 0}
!11 = !{i32 1024, i32 1, i32 1}
!12 = !{!13}
!13 = !{i32 1, i32 97, i32 2, !14}
!14 = !{i32 0, i32 16, i32 1, !15, i32 2, i32 4}
!15 = !{i32 0, i32 5, i32 3}
!16 = !{i32 64, i32 1, i32 1}
!17 = !{i32 0}
!18 = !{void ()* @Classify, !"Classify", null, null, !19}
!19 = !{i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !20, i32 16, i32 -1, i32 18, !21, i32 21, !22, i32 4, !16, i32 5, !17}
!20 = !{!"Classify", i32 0}
!21 = !{i32 8, i32 1, i32 1}
!22 = !{!23, !26}
!23 = !{i32 1, i32 22, i32 2, !24, i32 3, i32 32, i32 5, i32 1, i32 0, !25}
!24 = !{i32 0, i32 8, i32 2, i32 4}
!25 = !{!"Material", i32 1}
!26 = !{i32 1, i32 6, i32 2, !14, i32 3, i32 1, i32 0, !10}
!27 = !{void ()* @Material, !"Material", null, null, !28}
!28 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !25, i32 16, i32 -1, i32 20, !29, i32 4, !16, i32 5, !17}
!29 = !{!30}
!30 = !{i32 1, i32 65, i32 2, !24, i32 3, i32 16}
!31 = !{void ()* @Chunks, !"Chunks"}
!32 = !{void ()* @Classify, !"Classify"}
!33 = !{void ()* @Material, !"Material"}
